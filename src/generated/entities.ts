// Generated from schemas/ by `npm run gen`. Do not edit: change the schema and regenerate.

export interface AppclientRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Client code
   */
  clientCode: string | null;
  /**
   * Grant types
   *
   * @minItems 1
   */
  authType: [string, ...string[]] | null;
  /**
   * Scope
   */
  authScope: string | null;
  /**
   * Access token lifetime (s)
   */
  tokenSeconds: number | null;
  /**
   * Refresh token lifetime (s)
   */
  refreshSeconds: number | null;
  /**
   * Redirect URL
   */
  fallbackUrl: string | null;
  /**
   * Description
   */
  clientDescription: string | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface AppclientCreate {
  /**
   * Client code
   */
  clientCode: string;
  /**
   * Client secret
   */
  clientSecret?: string;
  /**
   * Grant types
   *
   * @minItems 1
   */
  authType: [string, ...string[]];
  /**
   * Scope
   */
  authScope?: string;
  /**
   * Access token lifetime (s)
   */
  tokenSeconds?: number;
  /**
   * Refresh token lifetime (s)
   */
  refreshSeconds?: number;
  /**
   * Redirect URL
   */
  fallbackUrl?: string;
  /**
   * Description
   */
  clientDescription?: string;
}

export interface ArticleRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Title
   */
  title: string | null;
  /**
   * Author
   */
  author: string | null;
  /**
   * Reviewer
   */
  reviewer: string | null;
  /**
   * Importance
   */
  importance: number | null;
  /**
   * Type
   */
  type: string | null;
  /**
   * Status
   */
  status: string | null;
  /**
   * Display time
   */
  displayTime: string | null;
  /**
   * Forecast
   */
  forecast: number | null;
  /**
   * Pageviews
   */
  pageviews: number | null;
  /**
   * Comments disabled
   */
  commentDisabled: boolean | null;
  /**
   * Platforms
   */
  platforms: string[] | null;
  /**
   * Image address
   */
  imageUri: string | null;
  /**
   * Summary
   */
  contentShort: string | null;
  /**
   * Content
   */
  content: string | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface ArticleCreate {
  /**
   * Title
   */
  title: string;
  /**
   * Author
   */
  author: string;
  /**
   * Reviewer
   */
  reviewer?: string;
  /**
   * Importance
   */
  importance: number;
  /**
   * Type
   */
  type: string;
  /**
   * Status
   */
  status: string;
  /**
   * Display time
   */
  displayTime?: string;
  /**
   * Forecast
   */
  forecast?: number;
  /**
   * Pageviews
   */
  pageviews?: number;
  /**
   * Comments disabled
   */
  commentDisabled?: boolean;
  /**
   * Platforms
   */
  platforms?: string[];
  /**
   * Image address
   */
  imageUri?: string;
  /**
   * Summary
   */
  contentShort?: string;
  /**
   * Content
   */
  content?: string;
}

export interface HomepictureRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Title
   */
  title: string | null;
  /**
   * Subtitle
   */
  subtitle: string | null;
  /**
   * Image
   */
  imageUrl: string | null;
  /**
   * Link
   */
  linkUrl: string | null;
  /**
   * Sequence
   */
  sequence: number | null;
  /**
   * Published
   */
  published: boolean | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface HomepictureCreate {
  /**
   * Title
   */
  title: string;
  /**
   * Subtitle
   */
  subtitle?: string;
  /**
   * Image
   */
  imageUrl: string;
  /**
   * Link
   */
  linkUrl?: string;
  /**
   * Sequence
   */
  sequence?: number;
  /**
   * Published
   */
  published?: boolean;
}

export interface IdleequipmentRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Name
   */
  name: string | null;
  /**
   * Category
   */
  category: string | null;
  /**
   * Model
   */
  model: string | null;
  /**
   * Condition
   */
  condition: string | null;
  /**
   * Quantity
   */
  quantity: number | null;
  /**
   * Price
   */
  price: string | null;
  /**
   * Location
   */
  location: string | null;
  /**
   * Seller
   */
  seller: string | null;
  /**
   * Contact phone
   */
  contactPhone: string | null;
  /**
   * Image
   */
  imageUrl: string | null;
  /**
   * Description
   */
  description: string | null;
  /**
   * Recommendation rank
   */
  rank: number | null;
  /**
   * Publish time
   */
  publishTime: string | null;
  /**
   * Published
   */
  published: boolean | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface IdleequipmentCreate {
  /**
   * Name
   */
  name: string;
  /**
   * Category
   */
  category: string;
  /**
   * Model
   */
  model?: string;
  /**
   * Condition
   */
  condition?: string;
  /**
   * Quantity
   */
  quantity?: number;
  /**
   * Price
   */
  price?: string;
  /**
   * Location
   */
  location?: string;
  /**
   * Seller
   */
  seller?: string;
  /**
   * Contact phone
   */
  contactPhone?: string;
  /**
   * Image
   */
  imageUrl?: string;
  /**
   * Description
   */
  description?: string;
  /**
   * Recommendation rank
   */
  rank?: number;
  /**
   * Publish time
   */
  publishTime?: string;
  /**
   * Published
   */
  published?: boolean;
}

export interface NoticeRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Title
   */
  title: string | null;
  /**
   * Category
   */
  category: string | null;
  /**
   * Publisher
   */
  publisher: string | null;
  /**
   * Summary
   */
  summary: string | null;
  /**
   * Content
   */
  content: string | null;
  /**
   * Attachments
   *
   * @maxItems 20
   */
  attachments:
    | []
    | [number]
    | [number, number]
    | [number, number, number]
    | [number, number, number, number]
    | [number, number, number, number, number]
    | [number, number, number, number, number, number]
    | [number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number, number, number, number, number]
    | [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number
      ]
    | [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number
      ]
    | [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number
      ]
    | [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number
      ]
    | [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number
      ]
    | [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number
      ]
    | null;
  /**
   * Publish time
   */
  publishTime: string | null;
  /**
   * Pinned
   */
  pinned: boolean | null;
  /**
   * Published
   */
  published: boolean | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface NoticeCreate {
  /**
   * Title
   */
  title: string;
  /**
   * Category
   */
  category?: string;
  /**
   * Publisher
   */
  publisher?: string;
  /**
   * Summary
   */
  summary?: string;
  /**
   * Content
   */
  content: string;
  /**
   * Attachments
   *
   * @maxItems 20
   */
  attachments?:
    | []
    | [number]
    | [number, number]
    | [number, number, number]
    | [number, number, number, number]
    | [number, number, number, number, number]
    | [number, number, number, number, number, number]
    | [number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number, number, number, number, number]
    | [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number
      ]
    | [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number
      ]
    | [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number
      ]
    | [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number
      ]
    | [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number
      ]
    | [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number
      ];
  /**
   * Publish time
   */
  publishTime?: string;
  /**
   * Pinned
   */
  pinned?: boolean;
  /**
   * Published
   */
  published?: boolean;
}

export interface NotificationRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Title
   */
  title: string | null;
  /**
   * Content
   */
  content: string | null;
  /**
   * Type
   */
  type: string | null;
  /**
   * Priority
   */
  priority: string | null;
  /**
   * Publisher
   */
  publisher: string | null;
  /**
   * Publish time
   */
  publishTime: string | null;
  /**
   * Start time
   */
  startTime: string | null;
  /**
   * End time
   */
  endTime: string | null;
  /**
   * Period
   */
  period: string | null;
  /**
   * Recipients
   */
  publishObject: number[] | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface NotificationCreate {
  /**
   * Title
   */
  title: string;
  /**
   * Content
   */
  content: string;
  /**
   * Type
   */
  type: string;
  /**
   * Priority
   */
  priority: string;
  /**
   * Start time
   */
  startTime?: string;
  /**
   * End time
   */
  endTime?: string;
  /**
   * Period
   */
  period?: string;
  /**
   * Recipients
   */
  publishObject?: number[];
}

export interface PurchaseRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Title
   */
  title: string | null;
  /**
   * Project code
   */
  projectCode: string | null;
  /**
   * Buyer
   */
  buyerName: string | null;
  /**
   * Category
   */
  category: string | null;
  /**
   * Purchase mode
   */
  purchaseMode: string | null;
  /**
   * Region
   */
  region: string | null;
  /**
   * Budget
   */
  budget: string | null;
  /**
   * Bid deadline
   */
  deadline: string | null;
  /**
   * Publish time
   */
  publishTime: string | null;
  /**
   * Contact
   */
  contactName: string | null;
  /**
   * Contact phone
   */
  contactPhone: string | null;
  /**
   * Content
   */
  content: string | null;
  /**
   * Published
   */
  published: boolean | null;
  /**
   * Approval status
   */
  approvalStatus: ("draft" | "pending" | "approved" | "rejected") | null;
  /**
   * Approval instance
   */
  approvalInstance: number | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface PurchaseCreate {
  /**
   * Title
   */
  title: string;
  /**
   * Project code
   */
  projectCode?: string;
  /**
   * Buyer
   */
  buyerName: string;
  /**
   * Category
   */
  category?: string;
  /**
   * Purchase mode
   */
  purchaseMode?: string;
  /**
   * Region
   */
  region?: string;
  /**
   * Budget
   */
  budget?: string;
  /**
   * Bid deadline
   */
  deadline?: string;
  /**
   * Publish time
   */
  publishTime?: string;
  /**
   * Contact
   */
  contactName?: string;
  /**
   * Contact phone
   */
  contactPhone?: string;
  /**
   * Content
   */
  content?: string;
  /**
   * Published
   */
  published?: boolean;
}

export interface ReportRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Report name
   */
  reportName: string | null;
  /**
   * Entity
   */
  entity: string | null;
  /**
   * Chart type
   */
  chartType: ("bar" | "line" | "pie" | "table") | null;
  /**
   * Dimensions
   *
   * @maxItems 2
   */
  dimensions: [] | [string] | [string, string] | null;
  /**
   * Measures
   *
   * @minItems 1
   * @maxItems 4
   */
  measures: [string] | [string, string] | [string, string, string] | [string, string, string, string] | null;
  /**
   * Filters
   */
  filters: {} | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface ReportCreate {
  /**
   * Report name
   */
  reportName: string;
  /**
   * Entity
   */
  entity: string;
  /**
   * Chart type
   */
  chartType: "bar" | "line" | "pie" | "table";
  /**
   * Dimensions
   *
   * @maxItems 2
   */
  dimensions?: [] | [string] | [string, string];
  /**
   * Measures
   *
   * @minItems 1
   * @maxItems 4
   */
  measures: [string] | [string, string] | [string, string, string] | [string, string, string, string];
  /**
   * Filters
   */
  filters?: {};
}

export interface SysdictRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Dictionary type
   */
  dictType: string | null;
  /**
   * Name
   */
  dictName: string | null;
  /**
   * Value
   */
  dictValue: string | null;
  /**
   * Sequence
   */
  dictSequence: number | null;
  /**
   * Parent
   */
  dictParent: number | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface SysdictCreate {
  /**
   * Dictionary type
   */
  dictType: string;
  /**
   * Name
   */
  dictName: string;
  /**
   * Value
   */
  dictValue?: string;
  /**
   * Sequence
   */
  dictSequence?: number;
  /**
   * Parent
   */
  dictParent?: number;
}

export interface SysmenuRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Menu code
   */
  menuCode: string | null;
  /**
   * Menu name
   */
  menuName: string | null;
  /**
   * Icon
   */
  menuIcon: string | null;
  /**
   * Route path
   */
  menuPath: string | null;
  /**
   * Component
   */
  menuComponent: string | null;
  /**
   * Sequence
   */
  menuSequence: number | null;
  /**
   * Parent menu
   */
  menuParent: number | null;
  /**
   * Status
   */
  menuStatus: string | null;
  /**
   * Buttons
   */
  menuButton: string[] | null;
  /**
   * Route meta
   */
  menuMeta: {} | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface SysmenuCreate {
  /**
   * Menu code
   */
  menuCode: string;
  /**
   * Menu name
   */
  menuName: string;
  /**
   * Icon
   */
  menuIcon?: string;
  /**
   * Route path
   */
  menuPath: string;
  /**
   * Component
   */
  menuComponent?: string;
  /**
   * Sequence
   */
  menuSequence?: number;
  /**
   * Parent menu
   */
  menuParent?: number;
  /**
   * Status
   */
  menuStatus?: string;
  /**
   * Buttons
   */
  menuButton?: string[];
  /**
   * Route meta
   */
  menuMeta?: {};
}

export interface SysorgRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Organisation name
   */
  orgName: string | null;
  /**
   * Organisation type
   */
  orgType: string | null;
  /**
   * Description
   */
  orgDescription: string | null;
  /**
   * Sequence
   */
  orgSequence: number | null;
  /**
   * Parent organisation
   */
  orgParent: number | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface SysorgCreate {
  /**
   * Organisation name
   */
  orgName: string;
  /**
   * Organisation type
   */
  orgType: string;
  /**
   * Description
   */
  orgDescription?: string;
  /**
   * Sequence
   */
  orgSequence?: number;
  /**
   * Parent organisation
   */
  orgParent?: number;
}

export interface SysparamRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Parameter name
   */
  paramName: string | null;
  /**
   * Parameter key
   */
  paramKey: string | null;
  /**
   * Parameter value
   */
  paramValue: string | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface SysparamCreate {
  /**
   * Parameter name
   */
  paramName: string;
  /**
   * Parameter key
   */
  paramKey: string;
  /**
   * Parameter value
   */
  paramValue?: string;
}

export interface SyspostRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Post code
   */
  postCode: string | null;
  /**
   * Post name
   */
  postName: string | null;
  /**
   * Sequence
   */
  postSequence: number | null;
  /**
   * Parent post
   */
  postParent: number | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface SyspostCreate {
  /**
   * Post code
   */
  postCode: string;
  /**
   * Post name
   */
  postName: string;
  /**
   * Sequence
   */
  postSequence?: number;
  /**
   * Parent post
   */
  postParent?: number;
}

export interface SysregionRecord {
  /**
   * Region code
   */
  regionCode: string;
  /**
   * Region name
   */
  regionName: string | null;
  /**
   * Region type
   */
  regionType: string | null;
  /**
   * Parent region
   */
  regionParent: string | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface SysregionCreate {
  /**
   * Region code
   */
  regionCode: string;
  /**
   * Region name
   */
  regionName: string;
  /**
   * Region type
   */
  regionType: string;
  /**
   * Parent region
   */
  regionParent: string;
}

export interface SysroleRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Role code
   */
  roleCode: string | null;
  /**
   * Role name
   */
  roleName: string | null;
  /**
   * Description
   */
  roleDescription: string | null;
  /**
   * Requires two-factor
   */
  requireTwoFactor: boolean | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface SysroleCreate {
  /**
   * Role code
   */
  roleCode: string;
  /**
   * Role name
   */
  roleName: string;
  /**
   * Description
   */
  roleDescription?: string;
  /**
   * Requires two-factor
   */
  requireTwoFactor?: boolean;
}

export interface SystenantRecord {
  /**
   * ID
   */
  id: number;
  /**
   * Tenant code
   */
  tenantCode: string | null;
  /**
   * Tenant name
   */
  tenantName: string | null;
  /**
   * Contact
   */
  tenantContact: string | null;
  /**
   * Email
   */
  tenantEmail: string | null;
  /**
   * Phone
   */
  tenantTel: string | null;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface SystenantCreate {
  /**
   * Tenant code
   */
  tenantCode: string;
  /**
   * Tenant name
   */
  tenantName: string;
  /**
   * Contact
   */
  tenantContact?: string;
  /**
   * Email
   */
  tenantEmail?: string;
  /**
   * Phone
   */
  tenantTel?: string;
}

export interface SysurlRecord {
  /**
   * ID
   */
  id: number;
  /**
   * URL
   */
  url: string | null;
  /**
   * Description
   */
  description: string | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface SysurlCreate {
  /**
   * URL
   */
  url: string;
  /**
   * Description
   */
  description?: string;
}

export interface SysuserRecord {
  /**
   * ID
   */
  id: number;
  /**
   * User name
   */
  username: string | null;
  /**
   * Nickname
   */
  nickname: string | null;
  /**
   * Email
   */
  email: string | null;
  /**
   * Country code
   */
  countryCode: string | null;
  /**
   * Mobile
   */
  mobile: string | null;
  /**
   * Phone
   */
  phone: string | null;
  /**
   * Status
   */
  status: string | null;
  /**
   * User type
   */
  userType: number | null;
  /**
   * Role
   */
  roleId: number | null;
  /**
   * Organisation
   */
  orgId: number | null;
  /**
   * Region
   */
  geographic: string | null;
  /**
   * Address
   */
  address: string | null;
  /**
   * Profile
   */
  profile: string | null;
  /**
   * Avatar
   */
  avatar: string | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface SysuserCreate {
  /**
   * User name
   */
  username: string;
  /**
   * Nickname
   */
  nickname: string;
  /**
   * Password
   */
  password: string;
  /**
   * Email
   */
  email: string;
  /**
   * Country code
   */
  countryCode: string;
  /**
   * Mobile
   */
  mobile: string;
  /**
   * Phone
   */
  phone: string;
  /**
   * Status
   */
  status: string;
  /**
   * User type
   */
  userType?: number;
  /**
   * Role
   */
  roleId: number;
  /**
   * Organisation
   */
  orgId: number;
  /**
   * Region
   */
  geographic?: string;
  /**
   * Address
   */
  address?: string;
  /**
   * Profile
   */
  profile?: string;
  /**
   * Avatar
   */
  avatar?: string;
}

export interface SysuserpostRecord {
  /**
   * ID
   */
  id: number;
  /**
   * User
   */
  userId: number | null;
  /**
   * Post
   */
  postId: number | null;
  /**
   * Post type
   */
  postType: ("main" | "parttime") | null;
  /**
   * Description
   */
  postDescription: string | null;
  /**
   * Tenant
   */
  tenantCode: string;
  /**
   * Created at
   */
  createdAt: string;
  /**
   * Created by
   */
  createdBy: string | null;
  /**
   * Updated at
   */
  updatedAt: string;
  /**
   * Updated by
   */
  updatedBy: string | null;
  /**
   * Version
   */
  version: number;
}

export interface SysuserpostCreate {
  /**
   * User
   */
  userId: number;
  /**
   * Post
   */
  postId: number;
  /**
   * Post type
   */
  postType: "main" | "parttime";
  /**
   * Description
   */
  postDescription?: string;
}

/** Record types by entity name. */
export interface EntityRecords {
  appclient: AppclientRecord;
  article: ArticleRecord;
  homepicture: HomepictureRecord;
  idleequipment: IdleequipmentRecord;
  notice: NoticeRecord;
  notification: NotificationRecord;
  purchase: PurchaseRecord;
  report: ReportRecord;
  sysdict: SysdictRecord;
  sysmenu: SysmenuRecord;
  sysorg: SysorgRecord;
  sysparam: SysparamRecord;
  syspost: SyspostRecord;
  sysregion: SysregionRecord;
  sysrole: SysroleRecord;
  systenant: SystenantRecord;
  sysurl: SysurlRecord;
  sysuser: SysuserRecord;
  sysuserpost: SysuserpostRecord;
}
